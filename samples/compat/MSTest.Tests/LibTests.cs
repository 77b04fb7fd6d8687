using Microsoft.VisualStudio.TestTools.UnitTesting;

[assembly: Parallelize(Scope = ExecutionScope.MethodLevel)]

namespace Compat.MSTest.Tests;

// The same calls as every compatibility row (see ../README.md).
[TestClass]
public class LibTests
{
    [TestMethod]
    public void Grades() {
        Assert.AreEqual("A", CompatLib.Grades.Letter(95));
        Assert.AreEqual("60: pass", CompatLib.Grades.Describe(60));
    }

    [TestMethod]
    public void Stats() {
        Assert.AreEqual(6, CompatLib.Stats.Sum(new[] { 1, 2, 3 }));
        Assert.AreEqual(2, CompatLib.Stats.CountEven(new[] { 1, 2, 3, 4 }));
    }
}
