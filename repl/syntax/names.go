package syntax

func lookupCharName(name string) (rune, bool) { return 0, false }
