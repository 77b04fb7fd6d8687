namespace Contention;

// Every thread runs Step on the same probes: each line, branch outcome, value condition and short-circuit operand
// below is counted from several threads at once. Step(i) for i in [0, n) runs its lines a number of times known
// from n alone (the test compares with a one-thread run).
public static class Work
{
    public static long Step(int i)
    {
        long v = i;
        if ((i & 1) == 0)
        {
            v = v * 3;
        }
        else
        {
            v = v + 1;
        }
        bool odd = (i & 1) != 0;
        bool both = i > 3 && (i & 2) == 0;
        bool any = i > 10 || odd;
        for (int k = 0; k < 2; k++)
        {
            v += k;
        }
        switch (i % 3)
        {
            case 0: v -= 1; break;
            case 1: v += 2; break;
            default: v ^= 5; break;
        }
        return v + (both ? 1 : 0) + (any ? 2 : 0);
    }

    // Runs Step for i in [0, n) on `threads` threads (i = t, t + threads, ...), started together.
    public static long RunAll(int n, int threads)
    {
        long total = 0;
        using var start = new ManualResetEventSlim(false);
        var workers = new Thread[threads];
        var sums = new long[threads];
        for (int t = 0; t < threads; t++)
        {
            int id = t;
            workers[t] = new Thread(() =>
            {
                start.Wait();
                long s = 0;
                for (int i = id; i < n; i += threads)
                {
                    s += Step(i);
                }
                sums[id] = s;
            });
            workers[t].Start();
        }
        start.Set();
        foreach (var w in workers)
        {
            w.Join();
        }
        foreach (var s in sums)
        {
            total += s;
        }
        return total;
    }
}
