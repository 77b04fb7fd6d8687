// Crash: usage `dotnet Crash.dll MODE`, MODE being
//   sigkill   runs a few lines, then kills its own process with SIGKILL (exit status 128 + 9)
//   failfast  Environment.FailFast (SIGABRT)
//   exit      Environment.Exit(3)
//   throw     an unhandled exception (SIGABRT)
//   ok        returns 0
//   sigterm   sends itself SIGTERM (no handler on .NET 10: exit status 128 + 15)
//   overflow  unbounded recursion: a stack overflow
//   threads   8 threads each run a probe 100000 times, then returns 0
//   spawn     starts `dotnet Crash.dll ok` as a child process and returns its status
// Each mode has its own method. The expected-coverage marks (hit or miss comments at the ends of lines) are
// those of a run of `sigkill` mode alone: the other modes' methods are marked as missed, and so is
// everything after the kill.
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Crash;

internal static class Program
{
    private static int Main(string[] args)
    { // @hit
        string mode = args.Length == 1 ? args[0] : ""; // @hit
        switch (mode) // @hit
        {
            case "sigkill": return SigKill(); // @hit
            case "failfast": return FailFast(); // @miss
            case "exit": return Exit(); // @miss
            case "throw": return Throw(); // @miss
            case "ok": return Ok(); // @miss
            case "sigterm": return SigTerm(); // @miss
            case "overflow": return Overflow(0); // @miss
            case "threads": return Threads(); // @miss
            case "spawn": return Spawn(); // @miss
        }
        Console.Error.WriteLine("usage: Crash sigkill|failfast|exit|throw|ok"); // @miss
        return 2; // @miss
    } // @miss

    private static int SigKill()
    { // @hit
        int total = 0; // @hit
        for (int i = 1; i <= 3; i++) // @hit
        { // @hit
            total += i; // @hit
        } // @hit
        Console.WriteLine($"crash: sigkill after {total}"); // @hit
        // On Linux, Process.Kill sends SIGKILL, and a signal sent to one's own process is delivered before
        // kill(2) returns: nothing below runs.
        Process.GetCurrentProcess().Kill(); // @hit
        Console.WriteLine("crash: still alive"); // @miss
        return 1; // @miss
    } // @miss

    private static int FailFast()
    { // @miss
        Environment.FailFast("crash: failfast"); // @miss
        return 1; // @miss
    } // @miss

    private static int Exit()
    { // @miss
        Environment.Exit(3); // @miss
        return 1; // @miss
    } // @miss

    private static int Throw()
    { // @miss
        throw new InvalidOperationException("crash: throw"); // @miss
    }

    private static int Ok()
    { // @miss
        Console.WriteLine("crash: ok"); // @miss
        return 0; // @miss
    } // @miss

    [DllImport("libc", EntryPoint = "kill")]
    private static extern int SysKill(int pid, int signal);

    private static int SigTerm()
    { // @miss
        Console.WriteLine("crash: sigterm"); // @miss
        SysKill(Environment.ProcessId, 15); // @miss
        Thread.Sleep(5000); // @miss
        return 1; // @miss
    } // @miss

    private static int Overflow(int depth)
    { // @miss
        return Overflow(depth + 1) + 1; // @miss
    } // @miss

    private static int Threads()
    { // @miss
        var threads = new Thread[8]; // @miss
        for (int t = 0; t < threads.Length; t++) // @miss
        { // @miss
            threads[t] = new Thread(Hammer); // @miss
            threads[t].Start(); // @miss
        } // @miss
        foreach (var thread in threads) // @miss
        { // @miss
            thread.Join(); // @miss
        } // @miss
        Console.WriteLine("crash: threads done"); // @miss
        return 0; // @miss
    } // @miss

    private static void Hammer()
    { // @miss
        for (int i = 0; i < 100000; i++) // @miss
        { // @miss
            Tick(); // @miss
        } // @miss
    } // @miss

    private static int s_ticks;

    private static void Tick()
    { // @miss
        s_ticks++; // @miss
    } // @miss

    private static int Spawn()
    { // @miss
        string self = typeof(Program).Assembly.Location; // @miss
        var child = Process.Start("dotnet", new[] { self, "ok" }); // @miss
        child.WaitForExit(); // @miss
        Console.WriteLine($"crash: child exited {child.ExitCode}"); // @miss
        return child.ExitCode; // @miss
    } // @miss
}
