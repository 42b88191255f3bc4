package pyformat_test

import (
	"fmt"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

func ExampleFormatFloat() {
	allocated := 3 * float64(1<<30)
	s, _ := pyformat.FormatFloat(allocated/(1<<20), ".1f")
	fmt.Println(s + " MiB")
	fmt.Println(pyformat.ReprFloat(1e-3), pyformat.ReprFloat(2.5e10), pyformat.ReprFloat(1.0/3))
	// Output:
	// 3072.0 MiB
	// 0.001 25000000000.0 0.3333333333333333
}

func ExampleFormatInt() {
	s, _ := pyformat.FormatInt(big.NewInt(8589934592), ",")
	fmt.Println(s)
	_, err := pyformat.FormatInt(big.NewInt(1), ".2")
	fmt.Println(err)
	// Output:
	// 8,589,934,592
	// ValueError: Precision not allowed in integer format specifier
}

func ExampleParseFormatString() {
	pieces, _ := pyformat.ParseFormatString("{:>{w}} GiB {name!r}")
	for _, p := range pieces {
		f := p.Field
		fmt.Printf("%q then argument %d %q, spec %d pieces\n", p.Literal, f.Index, f.Keyword, len(f.Spec))
	}
	// Output:
	// "" then argument 0 "", spec 1 pieces
	// " GiB " then argument 0 "name", spec 0 pieces
}
