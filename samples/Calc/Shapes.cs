namespace Calc;

public abstract record Shape(string Label); // @hit

public sealed record Circle(double Radius) : Shape("circle"); // @hit

public sealed record Rectangle(double Width, double Height) : Shape("rectangle"); // @hit

public sealed record Triangle(double Base, double Height) : Shape("triangle"); // @miss

public static class Geometry
{
    // The Triangle and discard arms are never taken, yet their lines are covered: the sequence point of the
    // whole switch expression spans all of its lines and is hit by every call.
    public static double Area(Shape shape) => shape switch // @hit @branches 3/6
    { // @hit
        Circle c => Math.PI * c.Radius * c.Radius, // @hit
        Rectangle r => r.Width * r.Height, // @hit
        Triangle t => t.Base * t.Height / 2, // @hit
        _ => throw new ArgumentException("unknown shape", nameof(shape)), // @hit
    }; // @hit

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
