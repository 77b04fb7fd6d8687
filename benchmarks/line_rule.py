"""Times the line rule (src/dotcov/analysis/lines.py) on synthetic C# files: lexing each file for its code-free lines
(Pygments) and deciding every line from its sequence points.

    .venv/bin/python benchmarks/line_rule.py [--files N] [--methods M] [--lex]

Each file holds M methods of ~12 lines, each a statement-per-line body plus a multi-line initializer of a lambda
with blank and comment lines (the shape the rule exists for). `--lex` times the Pygments path, taken by files with
a block comment or a verbatim/raw string. Prints seconds per 1,000 files and lines per second.
"""

from __future__ import annotations

import argparse
import time

from dotcov.analysis.lines import Span, code_free_lines, line_hits

METHOD = '''
    public int M{k}(int a, string label)
    {{
        var total = a * {k}; // running total
        Func<int, int> f = x =>
        {{

            // comment {k}
            return x + {k};
        }};
        if (a > {k} && label != null) total += label.Length;
        return f(total);
    }}
'''


def make(methods: int, seed: int) -> tuple[str, list[Span]]:
    text = "namespace N;\npublic class C%d\n{\n" % seed + "".join(METHOD.format(k=seed * 1000 + k) for k in range(methods)) + "}\n"
    spans = []
    for k in range(methods):
        base = 4 + k * 13  # the method's blank line, then its signature
        spans += [Span(base + 2, 5, base + 2, 6, 1), Span(base + 3, 9, base + 3, 30, 1),
                  Span(base + 4, 9, base + 9, 11, 1), Span(base + 5, 9, base + 5, 10, k % 2),
                  Span(base + 8, 13, base + 8, 28, k % 2), Span(base + 10, 9, base + 10, 60, 1),
                  Span(base + 11, 9, base + 11, 26, 1), Span(base + 12, 5, base + 12, 6, 1)]
    return text, spans


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--methods", type=int, default=20)
    ap.add_argument("--lex", action="store_true")
    args = ap.parse_args()
    inputs = [make(args.methods, i) for i in range(args.files)]
    lines = sum(t.count("\n") for t, _ in inputs)
    start = time.perf_counter()
    for text, spans in inputs:
        line_hits(spans, code_free_lines(text, ".cs", lex=args.lex))
    took = time.perf_counter() - start
    print(f"{args.files} files, {lines} lines: {took:.2f} s ({took * 1000 / args.files:.2f} s per 1,000 files, "
          f"{lines / took:,.0f} lines/s)")


if __name__ == "__main__":
    main()
