import { test } from 'node:test';
import { assertPublicApi } from '@portico/testkit';

test('the package exports exactly the names recorded in test/public-api.json', () => {
  assertPublicApi(import.meta.url);
});
