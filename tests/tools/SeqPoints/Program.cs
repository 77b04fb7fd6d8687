// SeqPoints: prints the sequence points of an assembly's portable PDB (beside the dll or embedded).
//
//   dotnet run --project tests/tools/SeqPoints -- [--lines | --ids] path/to/Assembly.dll
//
// Default: one line per sequence point, tab-separated, ordered by method token then IL offset:
//   <method token 0x06xxxxxx> <IL offset> <start line> <start column> <end line> <end column> <document> <hidden 0|1>
// --lines: one line per document, `<document>\t<line> <line> ...`, the sorted distinct lines covered by
//          non-hidden sequence points (every line from start to end).
// --ids:   `mvid\t<guid>`, `mvid_bytes\t<16 bytes hex>`, `pdb_id\t<20 bytes hex: guid + stamp from #Pdb>`.
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text;

internal static class Program
{
    private static int Main(string[] args)
    {
        string mode = "points";
        string? path = null;
        foreach (string arg in args)
        {
            switch (arg)
            {
                case "--lines": mode = "lines"; break;
                case "--ids": mode = "ids"; break;
                case "-h" or "--help": Usage(Console.Out); return 0;
                default:
                    if (arg.StartsWith("--", StringComparison.Ordinal) || path != null)
                    {
                        Usage(Console.Error);
                        return 2;
                    }
                    path = arg;
                    break;
            }
        }
        if (path == null)
        {
            Usage(Console.Error);
            return 2;
        }

        try
        {
            return Run(Path.GetFullPath(path), mode);
        }
        catch (Exception e) when (e is IOException or BadImageFormatException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"seqpoints: {path}: {e.Message}");
            return 1;
        }
    }

    private static void Usage(TextWriter w) =>
        w.WriteLine("usage: SeqPoints [--lines | --ids] path/to/Assembly.dll");

    private static int Run(string assemblyPath, string mode)
    {
        using FileStream stream = File.OpenRead(assemblyPath);
        using var pe = new PEReader(stream);
        if (!pe.TryOpenAssociatedPortablePdb(assemblyPath, OpenFile, out MetadataReaderProvider? provider, out string? pdbPath)
            || provider == null)
        {
            Console.Error.WriteLine($"seqpoints: {assemblyPath}: no portable PDB found (beside the assembly or embedded)");
            return 1;
        }

        using (provider)
        {
            MetadataReader pdb = provider.GetMetadataReader();
            Console.Out.NewLine = "\n";
            switch (mode)
            {
                case "ids":
                    PrintIds(pe.GetMetadataReader(), pdb, pdbPath);
                    break;
                case "lines":
                    PrintLines(pdb);
                    break;
                default:
                    PrintPoints(pdb);
                    break;
            }
        }
        return 0;
    }

    // Returning null means "not there", so the next place (embedded or beside the dll) is tried.
    private static Stream? OpenFile(string path) => File.Exists(path) ? File.OpenRead(path) : null;

    private static void PrintIds(MetadataReader metadata, MetadataReader pdb, string? pdbPath)
    {
        Guid mvid = metadata.GetGuid(metadata.GetModuleDefinition().Mvid);
        Console.WriteLine($"mvid\t{mvid:D}");
        Console.WriteLine($"mvid_bytes\t{Convert.ToHexStringLower(mvid.ToByteArray())}");
        BlobContentId id = new BlobContentId(pdb.DebugMetadataHeader!.Id);
        Console.WriteLine($"pdb_id\t{Convert.ToHexStringLower(pdb.DebugMetadataHeader.Id.AsSpan())}");
        Console.WriteLine($"pdb_guid\t{id.Guid:D}");
        Console.WriteLine($"pdb_stamp\t0x{id.Stamp:x8}");
        Console.WriteLine($"pdb\t{pdbPath ?? "(embedded)"}");
    }

    private static IEnumerable<(int Token, SequencePoint Point)> Points(MetadataReader pdb)
    {
        // MethodDebugInformation row i belongs to MethodDef row i, so the handles come in token order.
        foreach (MethodDebugInformationHandle handle in pdb.MethodDebugInformation)
        {
            MethodDebugInformation info = pdb.GetMethodDebugInformation(handle);
            if (info.SequencePointsBlob.IsNil)
            {
                continue;
            }
            int token = MetadataTokens.GetToken(handle.ToDefinitionHandle());
            foreach (SequencePoint sp in info.GetSequencePoints().OrderBy(p => p.Offset))
            {
                yield return (token, sp);
            }
        }
    }

    private static void PrintPoints(MetadataReader pdb)
    {
        var names = new Dictionary<DocumentHandle, string>();
        var output = new StringBuilder();
        foreach ((int token, SequencePoint sp) in Points(pdb))
        {
            string document = DocumentName(pdb, sp.Document, names);
            output.Append($"0x{token:x8}\t{sp.Offset}\t{sp.StartLine}\t{sp.StartColumn}\t{sp.EndLine}\t{sp.EndColumn}\t")
                  .Append(document).Append('\t').Append(sp.IsHidden ? '1' : '0').Append('\n');
        }
        Console.Out.Write(output.ToString());
    }

    private static void PrintLines(MetadataReader pdb)
    {
        var names = new Dictionary<DocumentHandle, string>();
        var lines = new SortedDictionary<string, SortedSet<int>>(StringComparer.Ordinal);
        foreach ((_, SequencePoint sp) in Points(pdb))
        {
            if (sp.IsHidden)
            {
                continue;
            }
            string document = DocumentName(pdb, sp.Document, names);
            if (!lines.TryGetValue(document, out SortedSet<int>? set))
            {
                lines[document] = set = new SortedSet<int>();
            }
            for (int line = sp.StartLine; line <= sp.EndLine; line++)
            {
                set.Add(line);
            }
        }
        foreach ((string document, SortedSet<int> set) in lines)
        {
            Console.WriteLine($"{document}\t{string.Join(' ', set)}");
        }
    }

    private static string DocumentName(MetadataReader pdb, DocumentHandle handle, Dictionary<DocumentHandle, string> cache)
    {
        if (!cache.TryGetValue(handle, out string? name))
        {
            cache[handle] = name = pdb.GetString(pdb.GetDocument(handle).Name);
        }
        return name;
    }
}
