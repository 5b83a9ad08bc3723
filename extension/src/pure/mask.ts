// Host-name masking for reports that are to be shared. No vscode import.

const NCCL_PREFIX = /^([A-Za-z][A-Za-z0-9_.-]*?):(\d+):(\d+) \[/gm; // host:pid:tid [rank]
const BRACKET_HOST = /\[([A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)\]:\s*(?=\S)/g; // [host]: (pdsh/srun -l style)
const HOST_WORDS = /\b(?:host(?:name)?|node|on)\s*[=:]?\s*['"`]?([A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)/gi;
const IPV4 = /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g;

const NOT_HOSTS = new Set(["rank", "the", "a", "an", "this", "that", "device", "cuda", "gpu", "cpu", "nccl", "error", "warn", "info", "x", "node"]);

function looksLikeHost(name: string): boolean {
  if (NOT_HOSTS.has(name.toLowerCase())) return false;
  // A host name here has a digit, a dash or a dot (gpu-node-3, dgx01, n1.cluster).
  return /[\d.-]/.test(name) && !/^\d/.test(name) && name.length >= 3;
}

/** Replaces each distinct host name and IPv4 address with host-N / ip-N, consistently. */
export function maskHostNames(text: string): string {
  const hosts = new Map<string, string>();
  const collect = (name: string) => {
    if (!hosts.has(name) && looksLikeHost(name)) hosts.set(name, `host-${hosts.size + 1}`);
  };
  for (const m of text.matchAll(NCCL_PREFIX)) collect(m[1]);
  for (const m of text.matchAll(BRACKET_HOST)) collect(m[1]);
  for (const m of text.matchAll(HOST_WORDS)) collect(m[1]);
  let out = text;
  const ips = new Map<string, string>();
  out = out.replace(IPV4, (ip) => {
    if (ip === "127.0.0.1" || ip === "0.0.0.0") return ip;
    if (!ips.has(ip)) ips.set(ip, `ip-${ips.size + 1}`);
    return ips.get(ip)!;
  });
  // Longest names first, so that "node-1" does not eat part of "node-12".
  const names = [...hosts.keys()].sort((a, b) => b.length - a.length);
  for (const name of names) {
    const re = new RegExp(`(?<![A-Za-z0-9_.-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9_-])`, "g");
    out = out.replace(re, hosts.get(name)!);
  }
  return out;
}
