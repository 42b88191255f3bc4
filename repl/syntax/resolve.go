package syntax

func resolve(filename string, m *Module) error { return nil }
