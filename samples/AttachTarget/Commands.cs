using System.Runtime.CompilerServices;

namespace AttachTarget;

internal static class Commands
{
    // Main's loop calls it for every command. A Release build inlines it into Main when Main is compiled, before any
    // attach: that copy has no probe, so the line reads missed there although it runs after the attach
    // (tests/e2e/test_attach.py). A Debug build inlines nothing: the call after the attach is counted.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsQuit(string line) => line == "quit"; // @hit
}
