import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './addresses.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '[::1]',
    'fe80::1%eth0',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::10.0.0.1',
    'not-an-address',
  ])('keeps away from %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '203.0.113.7',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2001:db8::1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('reaches %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
