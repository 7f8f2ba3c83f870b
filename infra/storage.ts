import type { StageSettings } from '../stacks/schema.ts';
import { tableArgs, tableTransform } from './settings.ts';

export function storage(settings: StageSettings) {
  const table = new sst.aws.Dynamo('Table', {
    ...tableArgs(),
    transform: {
      table: (args) => {
        Object.assign(args, tableTransform(settings));
      },
    },
  });
  return { table };
}
