// Entry of csp.html: the same app, plus probes that show what the page's policy blocks while the
// kit keeps working (its validators were compiled ahead of time: no eval, no new Function).
import './main.js';

function probe(label, blocked) {
  const li = document.createElement('li');
  li.className = blocked ? 'blocked' : 'allowed';
  li.textContent = `${label}: ${blocked ? 'blocked by the policy' : 'allowed (is the CSP header missing?)'}`;
  document.querySelector('#csp-probes').append(li);
}

let evalBlocked = false;
try {
  new Function('return 1')();
} catch {
  evalBlocked = true;
}
probe('new Function / eval', evalBlocked);

// An injected inline script does not run under script-src 'self'.
window.__cspInlineRan = false;
const inline = document.createElement('script');
inline.textContent = 'window.__cspInlineRan = true;';
document.head.append(inline);
probe('injected inline <script>', window.__cspInlineRan === false);
document.documentElement.dataset.cspEval = evalBlocked ? 'blocked' : 'allowed';
document.documentElement.dataset.cspInline = window.__cspInlineRan ? 'allowed' : 'blocked';
