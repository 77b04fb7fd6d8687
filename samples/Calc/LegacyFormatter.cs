namespace Calc;

/// <summary>Kept for compatibility; nothing uses it any more.</summary>
public class LegacyFormatter
{
    private readonly string _prefix;

    public LegacyFormatter(string prefix) // @miss
    { // @miss
        _prefix = prefix; // @miss
    } // @miss

    public string Format(int value)
    { // @miss
        return _prefix + value.ToString("D8"); // @miss
    } // @miss
}
