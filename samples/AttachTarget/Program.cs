// AttachTarget: reads commands from standard input, one a line, and answers each on standard output; "quit" (or the
// end of the input) ends it. It prints "ready" first. tests/e2e/test_attach.py starts it without dotcov, sends
// "before", attaches dotcov, sends "after" twice, then "quit". The marks are what the attached agent sees of that:
// Main is on the stack when the agent arrives, so it keeps its original code and none of its lines counts (a method
// gets its probes when it is next called); Work's methods run after the attach are counted, those run only before
// it are not.
namespace AttachTarget;

internal static class Program
{
    private static int Main()
    { // @miss
        Console.WriteLine("ready"); // @miss
        string? line;
        while ((line = Console.ReadLine()) != null && !Commands.IsQuit(line)) // @miss
        { // @miss
            Console.WriteLine(Work.Run(line)); // @miss
        } // @miss
        return 0; // @miss
    } // @miss
}
