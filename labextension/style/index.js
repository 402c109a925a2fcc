import 'uplot/dist/uPlot.min.css';
import '../src/chart/chart.css';
import './sidebar.css';
import './gpus.css';
