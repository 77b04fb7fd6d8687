using CompatLib;

// The same calls as every compatibility row (see ../README.md); exits 1 when a result is wrong.
var ok = Grades.Letter(95) == "A"
         && Grades.Describe(60) == "60: pass"
         && Stats.Sum(new[] { 1, 2, 3 }) == 6
         && Stats.CountEven(new[] { 1, 2, 3, 4 }) == 2;
Console.WriteLine($"{(ok ? "ok" : "WRONG")} on .NET {Environment.Version}");
return ok ? 0 : 1;
