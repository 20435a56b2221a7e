#!/usr/bin/env node
// node scripts/gitlab-review-note.mjs <report.md>
//
// Posts the spec-review report on a GitLab merge request, or updates the note it posted before (found by a
// hidden marker), so a merge request carries one current report. Reads GitLab's predefined CI variables
// (CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID) and SPEC_REVIEW_TOKEN: a project access token with
// the `api` scope (CI_JOB_TOKEN cannot write notes).
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const MARKER = '<!-- persona-api:spec-review -->';

/** Creates or updates the merge request's review note; returns 'created' or 'updated'. */
export async function upsertReviewNote({ apiUrl, projectId, mergeRequestIid, token, report, fetch = globalThis.fetch }) {
  const notesUrl = `${apiUrl}/projects/${encodeURIComponent(projectId)}/merge_requests/${mergeRequestIid}/notes`;
  const headers = { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' };
  const call = async (url, init = {}) => {
    const response = await fetch(url, { ...init, headers });
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
    return response;
  };
  const body = JSON.stringify({ body: `${MARKER}\n${report}` });
  for (let page = '1'; page; ) {
    const response = await call(`${notesUrl}?per_page=100&page=${page}`);
    const previous = (await response.json()).find((note) => note.body?.startsWith(MARKER));
    if (previous) {
      await call(`${notesUrl}/${previous.id}`, { method: 'PUT', body });
      return 'updated';
    }
    page = response.headers.get('x-next-page');
  }
  await call(notesUrl, { method: 'POST', body });
  return 'created';
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [reportPath] = process.argv.slice(2);
  const env = process.env;
  if (!env.SPEC_REVIEW_TOKEN || !env.CI_MERGE_REQUEST_IID) {
    console.log('gitlab-review-note: no SPEC_REVIEW_TOKEN or not a merge request pipeline; the report is in the job log and artifacts.');
  } else {
    const report =
      reportPath && existsSync(reportPath) ? readFileSync(reportPath, 'utf8') : `**spec:review could not run**: see [the job log](${env.CI_JOB_URL}).`;
    const outcome = await upsertReviewNote({
      apiUrl: env.CI_API_V4_URL,
      projectId: env.CI_PROJECT_ID,
      mergeRequestIid: env.CI_MERGE_REQUEST_IID,
      token: env.SPEC_REVIEW_TOKEN,
      report,
    });
    console.log(`gitlab-review-note: review note ${outcome}.`);
  }
}
