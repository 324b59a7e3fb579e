from taor.cli import main

raise SystemExit(main())
