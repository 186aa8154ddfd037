/** "1 game", "2 games", "0 games": a count and its noun (plural by an "s", or as given). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
