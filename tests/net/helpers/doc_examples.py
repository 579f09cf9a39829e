#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Extract every iptables example of the README and the manual.

usage: doc_examples.py OUTDIR FILE...

Where examples are:
  man pages (extensions/*.man, doc/man/*.man): each .nf/.fi block, roff
    escapes undone, request lines (.RS...) dropped, lines that end in a
    backslash joined;
  guides (doc/*.md): each fenced (```) block, lines that end in a
    backslash joined;
  the README: each run of lines indented by two spaces or more; a
    command line's first run of three spaces or more starts its comment
    column, which is dropped.
What an example is:
  a rules file, if the block has a table line (*filter, *raw...): its
    first line may name the file ("# /etc/chaostables/rules.v4"); .v6 or
    ipv6-icmp makes it IPv6. A file under /etc/chaostables/ is loaded
    with --noflush on top of the last other rules file of the same
    family before it in the same document (the base firewall), by
    chaostables-load, as chaostables.service loads it;
  commands, otherwise: the block's lines that start with iptables,
    ip6tables or ipset, run in order (other lines, such as comments or
    systemctl, are not examples).
A rules file is loaded after the "ipset create" commands of the same
document before it, as the sets it names must exist.
For each example, OUTDIR/N holds its text (OUTDIR/N.base the base
firewall's, for a --noflush file; OUTDIR/N.sets the ipset commands that
go first, if any), and a line goes to stdout:
  N <tab> cmds|restore4|restore6 <tab> noflush|- <tab> name
the name being FILE:LINE and the example's first line.
"""
import os
import re
import sys

TABLE = re.compile(r'^\*(filter|raw|mangle|nat|security)$')
CMD = re.compile(r'(ip6?tables|ipset)\s')
SETCREATE = re.compile(r'ipset\s+(-exist\s+)?(create|-N|-n)\s')


def unroff(line):
    for a, b in (('\\fB', ''), ('\\fI', ''), ('\\fR', ''), ('\\fP', ''),
                 ('\\&', ''), ('\\-', '-'), ('\\(dq', '"'),
                 ('\\(aq', "'"), ('\\e', '\\')):
        line = line.replace(a, b)
    return line


def man_blocks(text):
    """(line number, [lines]) of each .nf/.fi block."""
    block = None
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('.nf'):
            block = (n + 1, [])
        elif line.startswith('.fi') and block:
            yield block
            block = None
        elif block is not None and not line.startswith('.'):
            block[1].append(unroff(line))


def md_blocks(text):
    """(line number, [lines]) of each ``` fenced block."""
    block = None
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('```'):
            if block is None:
                block = (n + 1, [])
            else:
                yield block
                block = None
        elif block is not None:
            block[1].append(line)


def blocks(path, text):
    """The example blocks of PATH, by its kind."""
    if path.endswith('.md'):
        return md_blocks(text)
    if os.path.basename(path).startswith('README'):
        return readme_blocks(text)
    return man_blocks(text)


def readme_blocks(text):
    block = None
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('  ') and line.strip():
            if block is None:
                block = (n, [])
            body = line[2:]
            if re.match(CMD, body.strip()):
                body = re.split(r'\s{3,}', body.strip())[0]
            block[1].append(body.rstrip())
        elif block is not None:
            yield block
            block = None
    if block:
        yield block


def joined(lines):
    out = []
    for line in lines:
        if out and out[-1].endswith('\\'):
            out[-1] = out[-1][:-1].rstrip() + ' ' + line.strip()
        else:
            out.append(line)
    return out


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    n = 0
    for path in files:
        text = open(path).read()
        base = {}
        sets = []
        for line, lines in blocks(path, text):
            lines = joined(lines)
            name = '%s:%d' % (path, line)
            if any(TABLE.match(x.strip()) for x in lines):
                body = [x.strip() for x in lines]
                first = body[0] if body[0].startswith('#') else ''
                v6 = '.v6' in first or any('ipv6-icmp' in x for x in body)
                fam = '6' if v6 else '4'
                text = '\n'.join(body) + '\n'
                n += 1
                noflush = '/etc/chaostables/' in first
                if noflush:
                    if fam not in base:
                        base[fam] = ''
                    with open('%s/%d.base' % (outdir, n), 'w') as f:
                        f.write(base[fam])
                else:
                    base[fam] = text
                with open('%s/%d' % (outdir, n), 'w') as f:
                    f.write(text)
                if sets:
                    with open('%s/%d.sets' % (outdir, n), 'w') as f:
                        f.write('\n'.join(sets) + '\n')
                print('%d\trestore%s\t%s\t%s %s' %
                      (n, fam, 'noflush' if noflush else '-', name,
                       first or body[0]))
                continue
            cmds = [x.strip() for x in lines if CMD.match(x.strip())]
            sets += [x for x in cmds if SETCREATE.match(x)]
            if not any(re.match(r'ip6?tables\s', x) for x in cmds):
                continue
            n += 1
            with open('%s/%d' % (outdir, n), 'w') as f:
                f.write('\n'.join(cmds) + '\n')
            print('%d\tcmds\t-\t%s %s' % (n, name, cmds[0]))


if __name__ == '__main__':
    main()
