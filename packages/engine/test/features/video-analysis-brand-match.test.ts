import { describe, expect, it } from 'vitest';
import { mentions } from '../../src/features/video-analysis/offline.js';

// Issue 24: brand matching on OCR output. The strings are what tesseract read from rendered frames (the
// end-to-end case with real frames is in apps/api test/resources/video-analyses.test.ts).
describe('brand matching on OCR text', () => {
  it.each([
    ['ORBITAL', 'Orbital'],
    ['AB HORBITAL', 'Orbital'], // box edge read as a letter, stray word before
    ['JORBITAL', 'Orbital'],
    ['| ORBITAL §', 'Orbital'],
    ['ORB ITAL', 'Orbital'], // one word split in two
    ['0RBITAL', 'Orbital'], // one misread character
    ['ORBlTAL', 'Orbital'],
    ['ORBITALS', 'Orbital'],
    ['STRIDE\nATHLETICS', 'Stride Athletics'],
    ['STRIDEATHLETICS', 'Stride Athletics'], // glued words
    ['STR1DE ATHLETlCS', 'Stride Athletics'], // two misreads in a 15-letter name
    ['Buy ACME now', 'Acme'],
    ['HBO', 'HBO'],
  ])('finds %j for %j', (text, name) => {
    expect(mentions(text, name)).toBe(true);
  });

  it.each([
    ['ORBIT', 'Orbital'],
    ['ORBITING THE MOON', 'Orbital'],
    ['0RB1TAL', 'Orbital'], // two misreads in a 7-letter name
    ['RUN FURTHER', 'Stride Athletics'],
    ['STRIDE', 'Stride Athletics'],
    ['HBOX', 'HBO'], // short names need the whole word
    ['HB0', 'HBO'],
    ['XXXXORBITALXXXX', 'Orbital'], // too much around it to be noise
    ['', 'Orbital'],
    ['ORBITAL', ''],
  ])('does not find %j for %j', (text, name) => {
    expect(mentions(text, name)).toBe(false);
  });
});
