// A node:test reporter for scripts/test.mjs: writes, as one JSON object, what was skipped (and
// why) and how many tests passed and failed, so `npm test` can end with that list.
export default async function* skipsReporter(source) {
  const skipped = [];
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, details } = event.data;
    if (skip !== undefined && skip !== false) {
      skipped.push({ name, file, reason: typeof skip === 'string' ? skip : 'skipped' });
      continue;
    }
    if (details?.type === 'suite') continue;
    if (event.type === 'test:pass') passed++;
    else failed++;
  }
  yield `${JSON.stringify({ skipped, passed, failed })}\n`;
}
