// `kubectl gitops completion bash|zsh|fish|powershell`: the script that completes kubectl-gitops in that shell.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { ExitCode } from '../../model/errors.js';
import { SHELLS, completionScript } from '../completion.js';

export const completionCommand = defineCommand({
  command: 'completion <shell>',
  describe: 'Print a shell completion script for kubectl-gitops (kubectl gitops <TAB> uses kubectl_complete-gitops)',
  outputs: ['table'],
  builder: (y) =>
    y
      .positional('shell', { choices: SHELLS, demandOption: true, describe: 'The shell to complete in' })
      .example('source <(kubectl gitops completion bash)', 'Complete kubectl-gitops in this bash session')
      .example('kubectl gitops completion fish | source', 'The same in fish'),
  async run(args, ctx) {
    return emit(ctx, { report: completionScript(args.shell), code: ExitCode.Ok });
  },
});
