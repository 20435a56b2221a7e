import { generationApps, generationAppTemplate, renderTemplate } from '@persona-api/engine';
import { describe, expect, it } from 'vitest';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// The generation-app catalog: global, read-only, seeded from the engine's catalog on every start; at least
// two apps per category of DECISIONS.md, every input field with every key; list with its filters and
// pages, read, 404 for an unknown id.

const h = useHarness();
const t = useTenant(h);

const CATEGORIES = ['social_post', 'blog_article', 'email', 'ad_copy', 'landing_page', 'product_description', 'video_script', 'press_release'];
const FIELD_KEYS = ['name', 'label', 'type', 'required', 'options', 'max_length', 'minimum', 'maximum', 'placeholder', 'help_text', 'default_value'];

async function allApps(query = '') {
  const apps: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await h.get(`/generation-apps?limit=5${query}${cursor ? `&cursor=${cursor}` : ''}`, t.key);
    expect(res.status).toBe(200);
    apps.push(...res.body.data);
    cursor = res.body.next_cursor;
    expect(cursor === null).toBe(!res.body.has_more);
  } while (cursor);
  return apps;
}

describe('generation apps', () => {
  it('lists a catalog of at least 16 apps covering the 8 categories, paged newest first without repeats', async () => {
    const apps = await allApps();
    expect(apps.length).toBeGreaterThanOrEqual(16);
    expect(new Set(apps.map((app) => app.id)).size).toBe(apps.length);
    for (const category of CATEGORIES) expect(apps.filter((app) => app.category === category).length).toBeGreaterThanOrEqual(2);
    expect(apps.map((app) => app.id).sort()).toEqual(generationApps.map((app) => app.id).sort());
  });

  it('gives every app typed fields with every key, a real template, credits and an output budget', async () => {
    for (const app of await allApps()) {
      expect(app.estimated_credits).toBeGreaterThanOrEqual(1);
      expect(app.max_output_tokens).toBeGreaterThanOrEqual(100);
      expect(['markdown', 'html']).toContain(app.output_content_type);
      for (const field of app.input_fields) {
        expect(Object.keys(field).sort()).toEqual([...FIELD_KEYS].sort());
        expect(field.options !== null).toBe(field.type === 'select' || field.type === 'multi_select');
        if (field.default_value !== null && field.options) {
          const defaults = Array.isArray(field.default_value) ? field.default_value : [field.default_value];
          for (const value of defaults) expect(field.options).toContain(value);
        }
      }
      // The template (never served) names only the app's fields and renders with the defaults alone.
      const template = generationAppTemplate(app.id)!;
      expect(template.length).toBeGreaterThan(80);
      const values = Object.fromEntries(app.input_fields.map((field: any) => [field.name, field.default_value ?? (field.required ? 'X' : null)]));
      expect(renderTemplate(template, values)).not.toMatch(/\{\{|\}\}/);
      expect(JSON.stringify(app)).not.toContain(template.slice(0, 40));
    }
  });

  it('filters by category and by a case-insensitive search of the name', async () => {
    const emails = await allApps('&category=email');
    expect(emails.length).toBeGreaterThanOrEqual(2);
    expect(emails.every((app) => app.category === 'email')).toBe(true);
    const found = await allApps('&search=LINKEDIN');
    expect(found.map((app) => app.id)).toEqual(['app_linkedin_post']);
    expect(await allApps('&category=email&search=linkedin')).toEqual([]);
    expect(errorOf(await h.get('/generation-apps?category=poetry', t.key))).toMatchObject({ code: 'invalid_parameter' });
  });

  it('reads one app, and an unknown id is a 404', async () => {
    const res = await h.get('/generation-apps/app_press_release', t.key);
    expect(res.body).toMatchObject({ id: 'app_press_release', object: 'generation_app', category: 'press_release' });
    expect(res.body.input_fields.map((field: any) => field.name)).toContain('announcement');
    expect(errorOf(await h.get('/generation-apps/app_nope', t.key))).toMatchObject({ code: 'resource_not_found', param: 'id' });
  });

  it('renders templates: sections by value, lists joined, nothing left of the markup', () => {
    const template = generationAppTemplate('app_linkedin_post')!;
    const with_ = renderTemplate(template, { topic: 'Cold brew', audience: 'Remote workers', tone: 'bold', post_length: 'short', include_hashtags: true });
    expect(with_).toContain('Cold brew');
    expect(with_).toContain('It is for Remote workers.');
    expect(with_).toContain('three relevant hashtags');
    const without = renderTemplate(template, { topic: 'Cold brew', tone: 'bold', post_length: 'short', include_hashtags: false });
    expect(without).not.toContain('It is for');
    expect(without).toContain('Use no hashtags.');
    expect(renderTemplate('Stress {{a}}.', { a: ['price', 'speed'] })).toBe('Stress price, speed.');
  });
});
