"""Times the line rule (src/dotcov/analysis/lines.py) on synthetic C# files: lexing each file for its code-free lines
(Pygments) and deciding every line from its sequence points.

    .venv/bin/python benchmarks/line_rule.py [--files N] [--methods M] [--lex] [--release [--no-text]]

Each file holds M methods of ~12 lines, each a statement-per-line body plus a multi-line initializer of a lambda
with blank and comment lines (the shape the rule exists for). `--lex` times the Pygments path, taken by files with
a block comment or a verbatim/raw string. `--release` gives each lambda its own method and no point on its `{`
(a Release build), with the text as the plan reads it (CodeFreeLines: the lambdas' body openings are lexed from
the text), or with `--no-text` without the openings (points alone, the rule before); `--code-first` puts a
declaration without a point (`int c;`) first in each lambda's body instead of a comment, so that every file's
openings are lexed. Prints seconds per 1,000 files and lines per second.
"""

from __future__ import annotations

import argparse
import time

from dotcov.analysis.lines import CodeFreeLines, Span, code_free_lines, line_hits

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


def make(methods: int, seed: int, release: bool = False, code_first: bool = False) -> tuple[str, list[Span]]:
    method = METHOD.replace("// comment {k}", "int c{k};") if code_first else METHOD
    text = "namespace N;\npublic class C%d\n{\n" % seed + "".join(method.format(k=seed * 1000 + k) for k in range(methods)) + "}\n"
    spans = []
    for k in range(methods):
        base = 4 + k * 13  # the method's blank line, then its signature
        method = [Span(base + 2, 5, base + 2, 6, 1), Span(base + 3, 9, base + 3, 30, 1),
                  Span(base + 4, 9, base + 9, 11, 1), Span(base + 5, 9, base + 5, 10, k % 2),
                  Span(base + 8, 13, base + 8, 28, k % 2), Span(base + 10, 9, base + 10, 60, 1),
                  Span(base + 11, 9, base + 11, 26, 1), Span(base + 12, 5, base + 12, 6, 1)]
        if release:  # no point on the lambda's `{`; its `return` is its own method's
            r = method[4]
            method[3:5] = [Span(r.start_line, r.start_column, r.end_line, r.end_column, r.hits, 1 + k)]
        spans += method
    return text, spans


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--methods", type=int, default=20)
    ap.add_argument("--lex", action="store_true")
    ap.add_argument("--release", action="store_true")
    ap.add_argument("--no-text", action="store_true")
    ap.add_argument("--code-first", action="store_true")
    args = ap.parse_args()
    inputs = [make(args.methods, i, args.release, args.code_first) for i in range(args.files)]
    lines = sum(t.count("\n") for t, _ in inputs)
    start = time.perf_counter()
    for text, spans in inputs:
        if args.release:
            line_hits(spans, code_free_lines(text, ".cs") if args.no_text else CodeFreeLines(text, ".cs"))
        else:
            line_hits(spans, code_free_lines(text, ".cs", lex=args.lex))
    took = time.perf_counter() - start
    print(f"{args.files} files, {lines} lines: {took:.2f} s ({took * 1000 / args.files:.2f} s per 1,000 files, "
          f"{lines / took:,.0f} lines/s)")


if __name__ == "__main__":
    main()
