import { ProblemsError } from '../../contract/errors.ts';

/** A rollback that cannot be made: what is wrong with the build asked for, or what holds the dist. */
export class RollbackError extends ProblemsError {
  constructor(problems: readonly string[]) {
    super('ERR_BUILD', problems, 'rollback failed, dist/ left as it was', 20);
  }
}

/** A build that cannot go on: every problem found (the first 20 shown), each naming file, record and field. */
export class BuildError extends ProblemsError {
  constructor(problems: readonly string[]) {
    super('ERR_BUILD', problems, 'build failed, dist/ left as it was', 20);
  }
}
