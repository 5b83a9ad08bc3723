import * as assert from 'node:assert/strict';
import {test} from 'node:test';

import {verificationPlaceholders} from '../../src/pure/verification';

test('placeholders are found, each once, in order', () => {
  assert.deepEqual(verificationPlaceholders('nvidia-smi -q -d ECC -i <gpu>'), ['<gpu>']);
  assert.deepEqual(
      verificationPlaceholders(
          'NCCL_DEBUG=INFO <your launch command> 2>&1 | grep <peer ip> | grep <peer ip>'),
      ['<your launch command>', '<peer ip>'],
  );
});

test('the shell\'s own angle brackets are not placeholders', () => {
  assert.deepEqual(verificationPlaceholders('cat <<EOF\nx\nEOF'), []);
  assert.deepEqual(verificationPlaceholders('sort < file > out 2>&1'), []);
  assert.deepEqual(verificationPlaceholders('nvidia-smi -q -i 3'), []);
  assert.deepEqual(verificationPlaceholders('echo <$HOME>'), []);
});

test('placeholders may hold capitals after their first letter', () => {
  assert.deepEqual(
      verificationPlaceholders('all_reduce_perf -g <number of GPUs>'), ['<number of GPUs>']);
  assert.deepEqual(
      verificationPlaceholders('getent hosts <host in NCCL_COMM_ID>'), ['<host in NCCL_COMM_ID>']);
});
