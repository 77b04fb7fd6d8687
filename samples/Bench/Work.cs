namespace Bench;

/// <summary>A small struct record: value equality, hashing and `with` in hot loops.</summary>
public readonly record struct Point(int X, int Y)
{
    public Point Step(int dx, int dy) => this with { X = X + dx, Y = Y + dy };

    public int Manhattan() => Math.Abs(X) + Math.Abs(Y);
}

/// <summary>CPU-bound kernels; every statement is a sequence point, most inside tight loops.</summary>
public static class Work
{
    /// <summary>Tight loop: a linear congruential sequence with a branch per step.</summary>
    public static long Collatz(int limit)
    {
        long total = 0;
        for (int n = 1; n < limit; n++)
        {
            long x = n;
            while (x != 1)
            {
                if ((x & 1) == 0)
                {
                    x >>= 1;
                }
                else
                {
                    x = 3 * x + 1;
                }
                total++;
            }
        }
        return total;
    }

    /// <summary>Sieve of Eratosthenes: nested loops over an array.</summary>
    public static int Primes(int limit)
    {
        var composite = new bool[limit + 1];
        int count = 0;
        for (int i = 2; i <= limit; i++)
        {
            if (composite[i])
            {
                continue;
            }
            count++;
            for (long j = (long)i * i; j <= limit; j += i)
            {
                composite[j] = true;
            }
        }
        return count;
    }

    /// <summary>Recursion: many small calls, each with a few sequence points.</summary>
    public static long Fib(int n)
    {
        if (n < 2)
        {
            return n;
        }
        return Fib(n - 1) + Fib(n - 2);
    }

    /// <summary>LINQ: lambdas run once per element (their sequence points are in the lambdas).</summary>
    public static long LinqSum(int rounds, int size)
    {
        var data = Enumerable.Range(0, size).ToArray();
        long total = 0;
        for (int r = 0; r < rounds; r++)
        {
            total += data.Where(v => (v + r) % 3 != 0)
                         .Select(v => (long)v * 2 + r)
                         .Sum();
        }
        return total;
    }

    /// <summary>Dictionary work keyed by a struct record (its generated Equals/GetHashCode have no sequence points).</summary>
    public static int Walk(int steps)
    {
        var visits = new Dictionary<Point, int>();
        var p = new Point(0, 0);
        uint seed = 12345;
        int farthest = 0;
        for (int i = 0; i < steps; i++)
        {
            seed = seed * 1664525 + 1013904223;
            int dir = (int)(seed >> 30);
            p = dir switch
            {
                0 => p.Step(1, 0),
                1 => p.Step(-1, 0),
                2 => p.Step(0, 1),
                _ => p.Step(0, -1),
            };
            visits[p] = visits.TryGetValue(p, out int seen) ? seen + 1 : 1;
            farthest = Math.Max(farthest, p.Manhattan());
        }
        return visits.Count + farthest;
    }

    /// <summary>Word counting over generated text: string and Dictionary work.</summary>
    public static int WordCounts(int words)
    {
        string[] vocabulary = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < words; i++)
        {
            string w = vocabulary[(i * 7 + i / 3) % vocabulary.Length];
            counts[w] = counts.GetValueOrDefault(w) + 1;
        }
        int best = 0;
        foreach (var (_, n) in counts)
        {
            best = Math.Max(best, n);
        }
        return best;
    }
}
