namespace Calc;

public abstract record Shape(string Label); // @hit

public sealed record Circle(double Radius) : Shape("circle"); // @hit

public sealed record Rectangle(double Width, double Height) : Shape("rectangle"); // @hit

public sealed record Triangle(double Base, double Height) : Shape("triangle"); // @miss

public static class Geometry
{
    // The Triangle and discard arms are never taken: each arm's own sequence point decides its line, although the
    // point of the whole switch expression spans them all (docs/accuracy.md). The braces hold no code of their own.
    public static double Area(Shape shape) => shape switch // @hit @branches 2/4
    {
        Circle c => Math.PI * c.Radius * c.Radius, // @hit
        Rectangle r => r.Width * r.Height, // @hit
        Triangle t => t.Base * t.Height / 2, // @miss
        _ => throw new ArgumentException("unknown shape", nameof(shape)), // @miss
    };

    public static T Largest<T>(IEnumerable<T> items) where T : IComparable<T>
    { // @hit
        using IEnumerator<T> e = items.GetEnumerator(); // @hit
        if (!e.MoveNext()) // @hit @branches 1/2
        { // @miss
            throw new InvalidOperationException("no items"); // @miss
        }
        T best = e.Current; // @hit
        while (e.MoveNext()) // @hit @branches 2/2
        { // @hit
            if (e.Current.CompareTo(best) > 0) // @hit @branches 2/2
            { // @hit
                best = e.Current; // @hit
            } // @hit
        } // @hit
        return best; // @hit
    } // @hit
}
