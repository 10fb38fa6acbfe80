import { App } from './App';
import { mount } from './mount';
import './styles.css';

mount(App);
