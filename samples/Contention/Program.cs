// Usage: Contention <n> <threads>: prints the sum of Work.Step(i) for i in [0, n).
int n = int.Parse(args[0]);
int threads = int.Parse(args[1]);
Console.WriteLine(Contention.Work.RunAll(n, threads));
