#!/usr/bin/env python3
"""Writes tests/fuzz/ktorch.dict, plugin_fuzzer's libFuzzer dictionary, from ktorch's API
catalogue: every backticked lower-case name in it (functions, module and loss kinds, option
words, metric and mode names), as symbol text the fuzzer reads from its input.

The fuzzer reads a symbol read from the input with FuzzedDataProvider::ConsumeRandomLengthString,
which ends a string at a backslash followed by any other byte: each entry is the word followed
by backslash and a space, so it lands as that symbol exactly.

    python3 tests/fuzz/make_dictionary.py ../shared/reference/ktorch-api.md > tests/fuzz/ktorch.dict
"""
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    words = sorted(set(re.findall(r"`([a-z][a-zA-Z0-9]*)`", text)))
    print("# plugin_fuzzer's dictionary: ktorch's names and option words (tests/fuzz/make_dictionary.py).")
    for word in words:
        print(f'"{word}\\\\ "')


if __name__ == "__main__":
    main()
