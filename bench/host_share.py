#!/usr/bin/env python3
"""host_share.py — the instructions a callgrind profile spent inside the k host's C ABI.

Usage: bench/host_share.py K_ABI_HEADER CALLGRIND_OUT

Prints two numbers: the instructions counted in every call made from outside the k host into
one of the functions K_ABI_HEADER declares in its extern "C" block (ktn, knk, kj, r0, ...), each
call's inclusive cost once (calls between those functions, r0 freeing a list's items, are inside
an outer call and are not counted again), and the number of those calls. For
bench/plugin_instructions.sh: a plugin row's own instructions are its total less this share,
measured in the same run, so the k host's checked allocator (whose hash tables cost more or
less from run to run) drops out exactly.
"""
import re
import sys


def host_functions(header):
    """The names declared in the header's extern "C" block."""
    text = open(header, encoding="utf-8").read()
    start = text.index('extern "C" {')
    end = text.index('}  // extern "C"', start)
    return set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\(", text[start:end]))


def host_share(profile, host):
    """(instructions, calls) of the calls from non-host functions into host functions."""
    names = {}  # callgrind's compressed names: "(id) name" once, then "(id)"
    caller = callee = None
    in_call = False
    total = calls = 0

    def name_of(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    def is_host(name):
        return name in host or name.startswith("khost::")

    for line in open(profile, encoding="utf-8", errors="replace"):
        if line.startswith("fn="):
            caller = name_of(line[3:].strip())
        elif line.startswith("cfn="):
            callee = name_of(line[4:].strip())
        elif line.startswith("calls="):
            in_call = True
            count = int(line[6:].split()[0])
        elif in_call:
            in_call = False
            fields = line.split()
            if callee in host and not is_host(caller):
                total += int(fields[-1])  # the call's inclusive cost (one event: Ir)
                calls += count
    return total, calls


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    print(*host_share(sys.argv[2], host_functions(sys.argv[1])))


if __name__ == "__main__":
    main()
