/**
 * The identity of a call behind a meeting link (anchors §1.1): the Zoom meeting number without `pwd` or
 * subdomain, the Meet code, the Teams thread id, the Webex path. Two links to one call compare equal;
 * null when the host is not a supported platform.
 */
export function meetingKeyOf(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase();
  const path = decodeURIComponent(url.pathname).replace(/\/+$/, '');
  if (host === 'zoom.us' || host.endsWith('.zoom.us')) {
    const number = /\/(?:j|w|s|wc\/join|my)\/([A-Za-z0-9.]+)/.exec(path)?.[1];
    return number ? `zoom:${number.replace(/\D/g, '') || number.toLowerCase()}` : null;
  }
  if (host === 'meet.google.com') {
    const code = /^\/([a-z]{3}-[a-z]{4}-[a-z]{3})$/i.exec(path)?.[1];
    return code ? `meet:${code.toLowerCase()}` : null;
  }
  if (host === 'teams.microsoft.com' || host === 'teams.live.com') {
    const thread = /(19:meeting_[^@/]+@thread\.v2)/i.exec(path)?.[1];
    return `teams:${thread ?? `${host}${path}`}`;
  }
  if (host === 'webex.com' || host.endsWith('.webex.com')) return `webex:${host}${path.toLowerCase()}`;
  return null;
}
