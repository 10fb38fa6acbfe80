import { mount } from '../../../harness/web/src/mount';
import { App } from './App';
import './styles.css';

mount(App);
