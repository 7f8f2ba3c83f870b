/**
 * The addresses the routing check never connects to unless the installation says it may: its
 * requests go where a catalog's preview domain resolves, and what they meet is shown to the
 * project's viewers. Loopback, link-local (the cloud metadata service at 169.254.169.254),
 * private, shared (carrier-grade NAT), unspecified, multicast and reserved ranges, in IPv4 and
 * IPv6, and IPv4 addresses inside IPv6 (mapped, NAT64) as the IPv4 address they carry.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const ipv4Ranges: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const ipv6Ranges: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
];

const blocked = new BlockList();
for (const [network, prefix] of ipv4Ranges) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of ipv6Ranges) blocked.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address an IPv6 one carries in its last 32 bits, for the mapped and NAT64 prefixes. */
function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return null;
  const [high, low] = [Number.parseInt(hex[1], 16), Number.parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether the routing check keeps away from `address` (an IP literal); anything unparseable counts as such. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  if (isIPv4(bare)) return blocked.check(bare, 'ipv4');
  if (!isIPv6(bare)) return true;
  const carried = embeddedIpv4(bare);
  if (carried) return isPrivateAddress(carried);
  return blocked.check(bare, 'ipv6');
}
