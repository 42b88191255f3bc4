module github.com/gpumemrepl/gpumemrepl

go 1.26.8
