import { ProblemsError } from '../contract/errors.ts';

/** A build that cannot go on: every problem found (the first 20 shown), each naming file, record and field. */
export class BuildError extends ProblemsError {
  constructor(problems: readonly string[]) {
    super('ERR_BUILD', problems, 'build failed, dist/ left as it was', 20);
  }
}
