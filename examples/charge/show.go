package charge

import "os"

func showBug() bool { return os.Getenv("LABTEST_SHOW_BUG") != "" }
