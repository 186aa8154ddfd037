/** `[#######.............]`: `done` of `total` as a bar of `width` characters. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.max(0, Math.round((done / total) * width))) : 0;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
}
