using System.Diagnostics.CodeAnalysis;

namespace TextKit;

/// <summary>URL slugs; a second covered library for multi-project runs (marks as in Calc).</summary>
public static class Slug
{
    public static string Make(string title)
    { // @hit
        var sb = new System.Text.StringBuilder(); // @hit
        foreach (char c in title.ToLowerInvariant()) // @hit
        { // @hit
            if (char.IsLetterOrDigit(c)) // @hit
            { // @hit
                sb.Append(c); // @hit
            } // @hit
            else if (sb.Length > 0 && sb[^1] != '-') // @hit
            { // @hit
                sb.Append('-'); // @hit
            } // @hit
        } // @hit
        return sb.ToString().Trim('-'); // @hit
    } // @hit

    // Reports leave this out: its lines carry the `@excluded` mark.
    [ExcludeFromCodeCoverage]
    public static string Shout(string text)
    { // @excluded
        return text.ToUpperInvariant() + "!"; // @excluded
    } // @excluded

    public static string Truncate(string text, int max)
    { // @miss
        return text.Length <= max ? text : text[..max]; // @miss
    } // @miss
}
