module github.com/gpumemrepl/gpumemrepl

go 1.26.8

require (
	github.com/NVIDIA/go-nvml v0.13.4-1
	github.com/chzyer/readline v1.5.1
	github.com/ebitengine/purego v0.11.3
	github.com/fatih/color v1.19.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/sys v0.42.0 // indirect
)
