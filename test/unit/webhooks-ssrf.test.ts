import { describe, expect, it } from 'vitest';
import { checkTargetUrl, classifyAddress, classifyName, parseIPv4Loose, parseIPv6, readHost } from '../../src/webhooks/ssrf.ts';

describe('parseIPv4Loose (inet_aton forms)', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7F.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.01', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['3232235521', '192.168.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['4294967295', '255.255.255.255'],
    ['8.8.8.8.', '8.8.8.8'],
  ])('%s → %s', (input, out) => expect(parseIPv4Loose(input)).toBe(out));

  it.each(['4294967296', '256.0.0.1', '1.2.3.4.5', '08.0.0.1', 'example.com', '1.2.3.x', '', '0x1g', '1..2'])('%s is not an IPv4 address', (input) =>
    expect(parseIPv4Loose(input)).toBeNull(),
  );
});

describe('parseIPv6', () => {
  it('expands :: and trailing dotted IPv4', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
    expect(parseIPv6('[2001:db8::1]')).toEqual([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe, 0x80, ...Array(13).fill(0), 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(parseIPv6('not-an-ip')).toBeNull();
  });
});

describe('classifyAddress', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade/],
    ['100.127.255.255', /carrier-grade/],
    ['100.100.100.200', /carrier-grade/],
    ['169.254.169.254', /link-local/],
    ['169.254.0.1', /link-local/],
    ['168.63.129.16', /metadata/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['192.0.0.170', /IETF/],
    ['192.0.2.1', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['192.88.99.1', /6to4/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
    ['::ffff:7f00:1', /IPv4-mapped/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped/],
    ['::127.0.0.1', /reserved/],
    ['::7f00:1', /reserved/],
    ['64:ff9b::7f00:1', /NAT64 of loopback/],
    ['64:ff9b::a9fe:a9fe', /NAT64 of link-local/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['fc00::1', /unique local/],
    ['fd00:ec2::254', /unique local/],
    ['fdff:ffff::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['2001::1', /IETF/],
    ['2002:7f00:1::1', /6to4 of loopback/],
    ['2002:c0a8:101::1', /6to4 of private/],
    ['100::1', /reserved/],
    ['1::1', /reserved/],
    ['4000::1', /reserved/],
    ['localhost', /not an IP/],
  ];
  it.each(refused)('%s is refused (%s)', (ip, why) => expect(classifyAddress(ip)).toMatch(why));

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '11.0.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => expect(classifyAddress(ip)).toBeNull());
});

describe('host names', () => {
  it.each([
    'localhost',
    'api.localhost',
    'metadata.google.internal',
    'metadata',
    'printer.local',
    'db.internal',
    'intranet',
    'host.home.arpa',
    '1.0.0.127.in-addr.arpa',
  ])('%s is refused before DNS', (name) => expect(classifyName(name)).not.toBeNull());
  it.each(['example.com', 'hooks.example.co.il', 'xn--4dbrk0ce.example'])('%s may be looked up', (name) => expect(classifyName(name)).toBeNull());

  it('readHost sees numeric forms as IP literals', () => {
    expect(readHost('0x7f.1')).toEqual({ kind: 'ip', address: '127.0.0.1' });
    expect(readHost('[::1]')).toEqual({ kind: 'ip', address: '::1' });
    expect(readHost('Example.COM.')).toEqual({ kind: 'name', name: 'example.com' });
  });
});

describe('checkTargetUrl', () => {
  const refusedUrls = [
    'http://example.com/hook',
    'ftp://example.com/',
    'not a url',
    'https://user:pass@example.com/',
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0x7f000001/',
    'https://017700000001/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0/',
    'https://0.0.0.0/',
    'https://[::]/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:7f00:1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://0xa9fea9fe/',
    'https://100.64.0.1/',
    'https://10.0.0.1:8443/',
    'https://192.168.0.1/',
    'https://224.0.0.1/',
    'https://240.0.0.1/',
    'https://255.255.255.255/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://intranet/',
  ];
  it.each(refusedUrls)('%s is refused', (url) => {
    const r = checkTargetUrl(url, { allowPrivate: false });
    expect(r.ok).toBe(false);
    expect(r.problem).toBeTruthy();
  });

  it('accepts public https URLs', () => {
    expect(checkTargetUrl('https://hooks.example.com/pinkas?x=1', { allowPrivate: false }).ok).toBe(true);
    expect(checkTargetUrl('https://8.8.8.8:8443/', { allowPrivate: false }).ok).toBe(true);
    expect(checkTargetUrl('https://[2606:4700:4700::1111]/', { allowPrivate: false }).ok).toBe(true);
  });

  it('the development switch allows private targets but never plain http', () => {
    expect(checkTargetUrl('https://127.0.0.1:8443/', { allowPrivate: true }).ok).toBe(true);
    expect(checkTargetUrl('https://localhost/', { allowPrivate: true }).ok).toBe(true);
    expect(checkTargetUrl('http://127.0.0.1/', { allowPrivate: true }).ok).toBe(false);
  });
});
