#!/usr/bin/env python3
"""Production functions by length (issue #38's "readable rooms" table).

Counts the lines of every `fn` in src/ from its signature to its closing brace, leaving out
`#[cfg(test)]` modules and `#[test]` functions. Prints the counts over 80 and over 120 lines
and the longest functions.  Usage: python3 benches/fn_lengths.py [--list N] [src]
"""
import re
import sys
from pathlib import Path

FN = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"C"\s+)?fn\s+(\w+)')


def strip(line, state):
    """The line without string contents and comments; state carries block comments/raw strings."""
    out, i, n = [], 0, len(line)
    while i < n:
        if state['block']:
            j = line.find('*/', i)
            if j < 0:
                return ''.join(out), state
            state['block'] = False
            i = j + 2
            continue
        if state['raw'] is not None:
            end = '"' + '#' * state['raw']
            j = line.find(end, i)
            if j < 0:
                return ''.join(out), state
            state['raw'] = None
            i = j + len(end)
            continue
        if state['str']:
            c = line[i]
            if c == '\\':
                i += 2
                continue
            if c == '"':
                state['str'] = False
            i += 1
            continue
        c = line[i]
        if line.startswith('//', i):
            break
        if line.startswith('/*', i):
            state['block'] = True
            i += 2
            continue
        m = re.match(r'b?r(#*)"', line[i:])
        if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == '_')):
            state['raw'] = len(m.group(1))
            i += m.end()
            continue
        if c == '"':
            state['str'] = True
            i += 1
            continue
        if c == "'":
            m = re.match(r"'(\\.|[^\\'])'", line[i:]) or re.match(r"'\\u\{[0-9a-fA-F]+\}'", line[i:])
            if m:
                i += m.end()
                continue
        out.append(c)
        i += 1
    return ''.join(out), state


def functions(path):
    lines = path.read_text().splitlines()
    state = {'block': False, 'raw': None, 'str': False}
    clean = []
    for line in lines:
        text, state = strip(line, state)
        clean.append(text)
    found, skip_depth, depth, pending_test = [], None, 0, False
    stack = []  # (name, start line, depth at open)
    for no, text in enumerate(clean):
        raw = lines[no]
        if skip_depth is None and re.match(r'\s*#\[(cfg\(test\)|test|tokio::test)', raw):
            pending_test = True
        m = FN.match(text)
        if m and skip_depth is None and '{' in text or (m and skip_depth is None and not text.rstrip().endswith(';')):
            if m and not pending_test:
                stack.append([m.group(7), no, depth, False])
        if skip_depth is None and pending_test and ('{' in text) and (re.match(r'\s*(pub\s+)?mod\s', text) or FN.match(text)):
            skip_depth = depth
            pending_test = False
        for c in text:
            if c == '{':
                depth += 1
                for s in stack:
                    if s[2] == depth - 1 and not s[3]:
                        s[3] = True
            elif c == '}':
                depth -= 1
                if skip_depth is not None and depth == skip_depth:
                    skip_depth = None
                while stack and stack[-1][3] and depth == stack[-1][2]:
                    name, start, _, _ = stack.pop()
                    found.append((no - start + 1, name, start + 1))
        if text.rstrip().endswith(';') and stack and not stack[-1][3] and stack[-1][1] == no:
            stack.pop()  # a declaration without a body (trait method)
    return found


def main():
    args = sys.argv[1:]
    show = 20
    if args[:1] == ['--list']:
        show, args = int(args[1]), args[2:]
    root = Path(args[0] if args else 'src')
    allf, total_lines = [], 0
    for path in sorted(root.rglob('*.rs')):
        total_lines += len(path.read_text().splitlines())
        for length, name, line in functions(path):
            allf.append((length, f'{path}:{line}', name))
    allf.sort(reverse=True)
    over80 = sum(1 for f in allf if f[0] > 80)
    over120 = sum(1 for f in allf if f[0] > 120)
    over150 = sum(1 for f in allf if f[0] > 150)
    print(f'functions: {len(allf)}  over 80: {over80}  over 120: {over120}  over 150: {over150}  '
          f'(lines in {root}: {total_lines}; over 80 per 1,000 lines: {1000 * over80 / total_lines:.2f})')
    for length, where, name in allf[:show]:
        print(f'{length:5}  {name:32}  {where}')


if __name__ == '__main__':
    main()
