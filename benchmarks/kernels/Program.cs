// Usage: dotnet Kernels.dll REPS KERNEL... (Collatz Primes Fib Linq Walk Words), with Bench.Tests' arguments.
// Prints each call's CPU time on this thread (CLOCK_THREAD_CPUTIME_ID: time spent preempted by other jobs does not
// count) and the minimum, in ms. Run plain and under `dotcov run --no-report --` (with DOTCOV_REJIT=0,
// DOTCOV_SHARE=0 ...) alternately to split a Release gap by kernel.
using System.Runtime.InteropServices;
using Bench;

var reps = int.Parse(args[0]);
foreach (var name in args.Skip(1))
{
    var times = new List<double>();
    for (int r = 0; r < reps; r++)
    {
        double start = ThreadCpu.Milliseconds();
        long result = name switch
        {
            "Collatz" => Work.Collatz(900_000),
            "Primes" => Work.Primes(60_000_000),
            "Fib" => Work.Fib(32),
            "Linq" => Work.LinqSum(1200, 10_000),
            "Walk" => Work.Walk(9_000_000),
            "Words" => Work.WordCounts(15_000_000),
            _ => throw new ArgumentException($"unknown kernel {name}"),
        };
        times.Add(ThreadCpu.Milliseconds() - start);
        GC.KeepAlive(result);
    }
    Console.WriteLine($"{name}: {string.Join(" ", times.Select(t => t.ToString("F0")))}  min {times.Min():F0}");
}

static class ThreadCpu
{
    [StructLayout(LayoutKind.Sequential)]
    struct Timespec { public long Seconds; public long Nanoseconds; }

    const int ClockThreadCpuTimeId = 3;  // Linux

    [DllImport("libc", SetLastError = true)]
    static extern int clock_gettime(int clock, out Timespec value);

    public static double Milliseconds()
    {
        clock_gettime(ClockThreadCpuTimeId, out var t);
        return t.Seconds * 1e3 + t.Nanoseconds / 1e6;
    }
}
