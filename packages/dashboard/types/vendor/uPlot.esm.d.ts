// The type of `public/vendor/uPlot.esm.js`, which the dashboard's handler serves from the uplot
// package (tsconfig.pages.json maps `types/` over `public/` with rootDirs).
import uPlot from 'uplot';

export default uPlot;
