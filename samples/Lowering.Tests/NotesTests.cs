using Lowering;

namespace Lowering.Tests;

// The notes of the missed outcomes of ../Lowering/Notes.cs (tests/e2e/test_lowering_sample.py).
public class NotesTests
{
    [Fact]
    public void Missed_outcomes_have_source_notes()
    {
        Assert.Equal("pay", Notes.Explain(new PaymentException(402)));
        Assert.Equal("other", Notes.Explain(new InvalidOperationException()));
        Assert.Equal(1, Notes.Sign(3));
        Assert.Equal(1, Notes.Sign(5));
        Assert.True(Notes.Big(200, true));
        Assert.False(Notes.Big(50, true));
        Assert.Equal("either", Notes.Either(null, 1));
        Assert.Equal("either", Notes.Either(null, 2));
    }
}
