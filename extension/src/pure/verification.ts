// Verification commands as the server sends them: a placeholder it could not fill
// (`<your launch command>`) must be completed by the user before anything runs, because a
// shell reads `<gpu>` as an input redirection. The same reading as the server's
// (server/src/fix/verify_command.cpp): words in angle brackets, the first lower-case.

const PLACEHOLDER = /<[a-z][A-Za-z0-9 ._-]{0,47}>/g;

/** The placeholders left in `command`, in order, each once. */
export function verificationPlaceholders(command: string): string[] {
  const found: string[] = [];
  for (const m of command.matchAll(PLACEHOLDER)) {
    const p = m[0];
    if (p[p.length - 2] === ' ') continue;  // "< file >" is the shell's, not a placeholder
    if (!found.includes(p)) found.push(p);
  }
  return found;
}
