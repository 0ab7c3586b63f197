/** A build that cannot go on: every problem found, each naming file, record and field. */
export class BuildError extends Error {
  constructor(readonly problems: readonly string[]) {
    const shown = problems.slice(0, 20);
    const more = problems.length > shown.length ? `\n… and ${problems.length - shown.length} more` : '';
    super(`build failed, dist/ left as it was:\n- ${shown.join('\n- ')}${more}`);
    this.name = 'BuildError';
  }
}
