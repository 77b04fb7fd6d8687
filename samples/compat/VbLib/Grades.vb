Public Module Grades
    Public Function Letter(score As Integer) As String ' @hit
        If score < 0 OrElse score > 100 Then ' @hit
            Throw New ArgumentOutOfRangeException(NameOf(score)) ' @miss
        End If ' @hit
        If score >= 90 Then ' @hit
            Return "A" ' @hit
        ElseIf score >= 50 Then ' @hit
            Return "pass" ' @hit
        End If
        Return "fail" ' @miss
    End Function ' @hit

    Public Function Sum(values As IEnumerable(Of Integer)) As Integer ' @hit
        Dim total = 0 ' @hit
        For Each v In values ' @hit
            total += v ' @hit
        Next ' @hit
        Return total ' @hit
    End Function ' @hit

    Public Function CountEven(values As IEnumerable(Of Integer)) As Integer ' @hit
        Return values.Count(Function(v) v Mod 2 = 0) ' @hit
    End Function ' @hit

    Public Function Mean(values As IReadOnlyList(Of Integer)) As Double ' @miss
        If values.Count = 0 Then Return 0 ' @miss
        Return Sum(values) / values.Count ' @miss
    End Function ' @miss
End Module
