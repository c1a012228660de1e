import { describe, expect, it } from 'vitest';
import { classifyHost, outboundUrlRefusals } from '../../src/lib/outbound-url';

const codes = (url: string, mode: 'live' | 'test') => outboundUrlRefusals(url, mode).map((r) => r.code);

describe('outbound URL policy', () => {
  it('refuses loopback, private, link-local, metadata and reserved hosts for live tenants, in every spelling', () => {
    const refused = [
      'https://127.0.0.1/hook',
      'https://127.8.9.10/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
      'https://[::1]/',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::]/',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/',
      'https://172.16.0.1/',
      'https://172.31.255.255/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://100.127.255.255/',
      'https://0.0.0.0/',
      'https://0/',
      'https://192.0.0.192/',
      'https://198.18.0.1/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
      // Numeric tricks the URL parser turns into 127.0.0.1 or 10.0.0.1.
      'https://0x7f000001/',
      'https://0x7F.0.0.1/',
      'https://2130706433/',
      'https://017700000001/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://127.0.0.1./',
      'https://%31%32%37.0.0.1/',
      'https://167772161/',
      // IPv6 forms of private or embedded IPv4 addresses.
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[::127.0.0.1]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[fc00::1]/',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://[ff02::1]/',
      'https://[2001:db8::1]/',
      'https://[2002:7f00:1::]/',
      'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      // Names that only resolve inside a private network.
      'https://metadata/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://printer.local/',
      'https://router.home.arpa/',
      'https://1.0.0.127.in-addr.arpa/',
    ];
    for (const url of refused) expect(codes(url, 'live'), url).toEqual(['private_address']);
  });

  it('accepts public hosts', () => {
    for (const url of ['https://hooks.example.com/billing', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/', 'https://n8n.acme.de:5678/webhook/abc/webhook', 'https://100.128.0.1/', 'https://172.32.0.1/', 'https://xn--bcher-kva.de/']) {
      expect(codes(url, 'live'), url).toEqual([]);
    }
  });

  it('lets test tenants use loopback (http or https), and nothing else that is not public', () => {
    for (const url of ['http://localhost:9/hook', 'http://127.0.0.1:3000/', 'http://[::1]:8080/', 'https://localhost/', 'http://0x7f000001/']) expect(codes(url, 'test'), url).toEqual([]);
    expect(codes('https://169.254.169.254/latest/meta-data', 'test')).toEqual(['private_address']);
    expect(codes('http://10.0.0.1/', 'test')).toEqual(['https_required', 'private_address']);
    expect(codes('http://hooks.example.com/', 'test')).toEqual(['https_required']);
    expect(codes('http://localhost/', 'live')).toEqual(['https_required', 'private_address']);
  });

  it('refuses what is not an absolute http(s) URL, and credentials', () => {
    expect(codes('not a url', 'live')).toEqual(['invalid_url']);
    expect(codes('/relative', 'live')).toEqual(['invalid_url']);
    expect(codes('ftp://hooks.example.com/', 'live')).toEqual(['https_required']);
    expect(codes('https://user:pw@hooks.example.com/', 'live')).toEqual(['invalid_url']);
    expect(codes('https://[fe80::1%25eth0]/', 'live')).toEqual(['invalid_url']);
  });

  it('names the reason', () => {
    expect(classifyHost('169.254.169.254')).toEqual({ kind: 'non-public', reason: 'a link-local (cloud metadata) address' });
    expect(classifyHost('[::1]').kind).toBe('loopback');
    expect(outboundUrlRefusals('https://0x7f000001/', 'live')[0]!.message).toBe('127.0.0.1 is a loopback address; only public hosts are allowed.');
  });
});
