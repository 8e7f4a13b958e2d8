// Narrows where this page may connect to, as soon as the page's modules are evaluated.
//
// index.html's own policy has to allow `connect-src 'self' http: https:`, because a static
// file cannot know which chat server the user will configure. This module adds a second
// policy in a <meta> tag: `connect-src 'self' <the configured server's origin>` (or only
// 'self' when none is configured). The browser enforces every policy it is given, so the
// effective rule is the stricter one, for the rest of this page's life. A policy can never be
// loosened again, so a newly configured server becomes reachable after a reload; the chat
// panel says so.
//
// It runs while app.js's imports are evaluated, before app.js or any worker starts, and
// nothing of ours connects anywhere before that. Blob workers (wllama's) inherit both
// policies.

import { endpointOrigin, loadSettings } from './settings.js';
import { remoteOrigin } from '../api/remote.js';

function install() {
  const origin = endpointOrigin(loadSettings().baseUrl);
  const remote = remoteOrigin(); // a remote library (api/remote.js), admitted the same way
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = `connect-src 'self'${origin ? ` ${origin}` : ''}${remote && remote !== origin ? ` ${remote}` : ''}`;
  meta.dataset.chatPolicy = '';
  document.head.append(meta);
  return [origin, remote];
}

const [chatOrigin, libraryOrigin] = typeof document !== 'undefined' ? install() : [null, null];
/** The chat server origin this page may connect to (besides its own), or null. */
export const allowedOrigin = chatOrigin;
/** The remote library's origin this page may connect to, or null. */
export const allowedRemoteOrigin = libraryOrigin;
