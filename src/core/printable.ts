/**
 * Text that came from a worker or an engine (names, hosts, notes, reasons, PGNs), made safe
 * for a terminal: a control character would be run by it (clear the screen, set the window
 * title, write the clipboard with OSC 52), so each is shown as an escape instead.
 */

// C0 and C1 controls and DEL; line breaks and tabs are kept by printableLines only.
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const escaped = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/** One line of text: every control character as \xNN. */
export function printable(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** Text of several lines (a PGN): its line breaks and tabs kept, every other control character as \xNN. */
export function printableLines(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL_BUT_LINES, escaped);
}
