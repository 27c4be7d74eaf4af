/**
 * `<agent-chat>`'s styles: custom properties with light defaults, dark ones from `prefers-color-scheme`.
 * A constant given to `unsafeCSS` rather than the `css` tag, as the elements do, so the CDN file (whose
 * lit the chat shares) never has to carry lit's template-checking tag.
 */
import { unsafeCSS } from 'lit';

export const chatStyles = unsafeCSS(`
  :host {
    --_bg: var(--agent-chat-background, #fff);
    --_fg: var(--agent-chat-color, #1b1b1f);
    --_muted: var(--agent-chat-muted, #4a4c52);
    --_accent: var(--agent-chat-accent, #0b57d0);
    --_on-accent: var(--agent-chat-on-accent, #fff);
    --_border: var(--agent-chat-border, #c4c7c5);
    --_user: var(--agent-chat-user-background, #e8eefc);
    --_tool: var(--agent-chat-tool-background, #f5f6f8);
    --_danger: var(--agent-chat-danger, #b3261e);
    --_radius: var(--agent-chat-radius, 12px);
    display: flex;
    flex-direction: column;
    box-sizing: border-box;
    min-height: 16rem;
    height: var(--agent-chat-height, 32rem);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_bg);
    color: var(--_fg);
    font: 0.9375rem/1.45 var(--agent-chat-font, system-ui, sans-serif);
    overflow: hidden;
  }
  @media (prefers-color-scheme: dark) {
    :host {
      --_bg: var(--agent-chat-background, #1e1f22);
      --_fg: var(--agent-chat-color, #e6e6e9);
      --_muted: var(--agent-chat-muted, #b4b6bc);
      --_accent: var(--agent-chat-accent, #a8c7fa);
      --_on-accent: var(--agent-chat-on-accent, #062e6f);
      --_border: var(--agent-chat-border, #4a4c52);
      --_user: var(--agent-chat-user-background, #2b3445);
      --_tool: var(--agent-chat-tool-background, #2a2b2f);
      --_danger: var(--agent-chat-danger, #ffb4ab);
    }
  }
  [hidden] {
    display: none !important;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  header {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
    padding: 0.5rem 0.75rem;
    border-bottom: 1px solid var(--_border);
  }
  header:empty {
    display: none;
  }
  select,
  button,
  textarea {
    font: inherit;
    color: inherit;
  }
  button {
    padding: 0.3rem 0.8rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
    background: var(--_bg);
    cursor: pointer;
  }
  button.primary,
  [part~='approve'] {
    border-color: var(--_accent);
    background: var(--_accent);
    color: var(--_on-accent);
  }
  button:disabled {
    opacity: 0.6;
    cursor: default;
  }
  /* Not opacity: a translucent Approve is one the browser does not report as visible (IntersectionObserver v2). */
  button[aria-disabled='true'] {
    color: var(--_muted);
    cursor: default;
  }
  [part~='approve'][aria-disabled='true'] {
    border-color: var(--_border);
    background: var(--_border);
    color: var(--_fg);
  }
  button:focus-visible,
  textarea:focus-visible,
  select:focus-visible,
  summary:focus-visible,
  input:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  /* Positioned: the visually hidden words in messages are placed in the log and scroll with it (else they sit where the page lays them out, and make the page itself scroll). */
  .log {
    position: relative;
    flex: 1;
    overflow-y: auto;
    padding: 0.75rem;
    display: flex;
    flex-direction: column;
    gap: 0.75rem;
  }
  .message {
    max-width: 100%;
    overflow-wrap: anywhere;
  }
  .message.user {
    align-self: flex-end;
    max-width: 85%;
    padding: 0.4rem 0.75rem;
    border-radius: var(--_radius);
    background: var(--_user);
    white-space: pre-wrap;
  }
  .message-actions {
    display: flex;
    gap: 0.25rem;
    justify-content: flex-end;
    margin-top: 0.25rem;
  }
  .message-actions button {
    padding: 0.1rem 0.5rem;
    font-size: 0.8125rem;
  }
  .md > :first-child {
    margin-top: 0;
  }
  .md > :last-child {
    margin-bottom: 0;
  }
  .md pre {
    overflow-x: auto;
    padding: 0.5rem;
    border-radius: calc(var(--_radius) / 2);
    background: var(--_tool);
  }
  .md code,
  pre,
  .input-value,
  .tool-name {
    font-family: ui-monospace, monospace;
    font-size: 0.875em;
  }
  .md table {
    border-collapse: collapse;
  }
  .md th,
  .md td {
    border: 1px solid var(--_border);
    padding: 0.2rem 0.4rem;
  }
  a {
    color: var(--_accent);
  }
  .tool {
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 1.5);
    background: var(--_tool);
    padding: 0.4rem 0.6rem;
    margin: 0.4rem 0;
  }
  .tool summary {
    cursor: pointer;
    display: flex;
    gap: 0.5rem;
    align-items: baseline;
  }
  .tool-name {
    overflow-wrap: anywhere;
  }
  .tool-state {
    margin-left: auto;
    font-size: 0.8125rem;
    color: var(--_muted);
    white-space: nowrap;
  }
  .tool[data-state='error'] .tool-state {
    color: var(--_danger);
  }
  .tool dl {
    display: grid;
    grid-template-columns: max-content 1fr;
    gap: 0.1rem 0.6rem;
    margin: 0.3rem 0;
  }
  .tool dt {
    color: var(--_muted);
  }
  .tool dd {
    margin: 0;
    white-space: pre-wrap;
    overflow-wrap: anywhere;
  }
  .tool pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    margin: 0.3rem 0;
    max-height: 16rem;
    overflow-y: auto;
  }
  .approval {
    margin-top: 0.4rem;
    padding-top: 0.4rem;
    border-top: 1px solid var(--_border);
  }
  .approval .actions {
    display: flex;
    gap: 0.5rem;
    justify-content: flex-end;
    align-items: center;
  }
  .countdown {
    margin-right: auto;
    color: var(--_muted);
    font-size: 0.8125rem;
  }
  .nested {
    margin: 0.4rem 0 0 0.5rem;
    padding-left: 0.6rem;
    border-left: 2px solid var(--_border);
  }
  .notice,
  .status {
    margin: 0 0.75rem 0.5rem;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 1.5);
  }
  .notice.error,
  .status.error {
    border-color: var(--_danger);
  }
  .approval p,
  .status p,
  .notice p {
    margin: 0 0 0.4rem;
  }
  .status progress {
    width: 100%;
  }
  .models {
    border: 0;
    margin: 0;
    padding: 0;
  }
  .models label {
    display: block;
    padding: 0.25rem 0;
  }
  .models small {
    color: var(--_muted);
  }
  form {
    display: flex;
    gap: 0.5rem;
    align-items: flex-end;
    padding: 0.5rem 0.75rem 0.75rem;
    border-top: 1px solid var(--_border);
  }
  textarea {
    flex: 1;
    resize: none;
    min-height: 2.5rem;
    max-height: 8rem;
    padding: 0.4rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
    background: var(--_bg);
  }
  .reason {
    margin: 0 0.75rem;
    color: var(--_muted);
    font-size: 0.8125rem;
  }
  .highlight {
    position: fixed;
    z-index: 2147483000;
    pointer-events: none;
    outline: 3px solid var(--agent-chat-highlight, #e8710a);
    outline-offset: 3px;
    border-radius: 4px;
    transition: top 0.2s, left 0.2s, width 0.2s, height 0.2s;
  }
  .highlight span {
    position: absolute;
    top: -1.9rem;
    left: -3px;
    padding: 0.1rem 0.5rem;
    border-radius: 4px;
    background: var(--agent-chat-highlight, #e8710a);
    color: #000;
    font-size: 0.8125rem;
    white-space: nowrap;
    max-width: 24rem;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  @media (prefers-reduced-motion: reduce) {
    .highlight {
      transition: none;
    }
  }
`);
