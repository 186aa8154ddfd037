/**
 * Live status output: on a terminal, one line rewritten in place; elsewhere (logs, CI),
 * a plain line at most every `quietMs`, so log files stay readable.
 */
export class StatusLine {
  private lastPlain = 0;
  private shown = false;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly quietMs = 10_000,
  ) {}

  update(text: string): void {
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[2K${text}`);
      this.shown = true;
    } else if (Date.now() - this.lastPlain >= this.quietMs) {
      this.lastPlain = Date.now();
      this.stream.write(`${text}\n`);
    }
  }

  /** Erases the live line, so that a message takes its place and the next update follows it. */
  clear(): void {
    if (this.shown) this.stream.write("\r\x1b[2K");
    this.shown = false;
  }

  /** Ends the live line so that the next message starts on a fresh line. */
  done(): void {
    if (this.shown) this.stream.write("\n");
    this.shown = false;
  }
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Shows a spinner with elapsed seconds while `work` runs on a terminal; elsewhere (logs) the label
 * once, as it starts.
 */
export async function withSpinner<T>(
  label: string,
  work: Promise<T>,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<T> {
  if (!stream.isTTY) stream.write(`${label}…\n`);
  const started = Date.now();
  const line = new StatusLine(stream, Number.POSITIVE_INFINITY);
  let frame = 0;
  const timer = setInterval(() => {
    line.update(`${FRAMES[frame++ % FRAMES.length]} ${label} ${((Date.now() - started) / 1000).toFixed(0)}s`);
  }, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    line.done();
  }
}
