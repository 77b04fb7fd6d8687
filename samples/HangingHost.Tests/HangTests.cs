namespace HangingHost.Tests;

public class HangTests
{
    [Fact]
    public void LeavesAForegroundThreadRunning()
    {
        Assert.Equal("a-b", TextKit.Slug.Make("A b"));
        // A foreground thread keeps the process alive after the run, so the test host never exits on its
        // own: vstest kills it. Every hit made before the kill must still be reported.
        new Thread(() => Thread.Sleep(Timeout.Infinite)) { IsBackground = false, Name = "never ends" }.Start();
    }
}
