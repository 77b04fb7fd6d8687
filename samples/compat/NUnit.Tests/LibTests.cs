using NUnit.Framework;

namespace Compat.NUnit.Tests;

// The same calls as every compatibility row (see ../README.md).
public class LibTests
{
    [Test]
    public void Grades() {
        Assert.That(CompatLib.Grades.Letter(95), Is.EqualTo("A"));
        Assert.That(CompatLib.Grades.Describe(60), Is.EqualTo("60: pass"));
    }

    [Test]
    public void Stats() {
        Assert.That(CompatLib.Stats.Sum(new[] { 1, 2, 3 }), Is.EqualTo(6));
        Assert.That(CompatLib.Stats.CountEven(new[] { 1, 2, 3, 4 }), Is.EqualTo(2));
    }
}
